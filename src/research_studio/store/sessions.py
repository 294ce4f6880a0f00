"""Sessions database (seed 000's research_sessions / research_findings), via SQLAlchemy.

Findings are written as they arrive, so a crash loses nothing already gathered; the
final result JSON and report are stored when a session completes. Progress events are
stored too (``research_events``): their row id is the server-sent-event id, so a client
that reconnects with ``Last-Event-ID`` gets exactly what it missed, even across a restart.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    create_engine,
    event,
    func,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from research_studio.errors import ResearchStudioError
from research_studio.store.faults import (
    SESSIONS,
    check_marker_table,
    check_sqlite_file,
    create_atomically,
    fault,
    is_storage_exception,
    remote_fault,
)


class Base(DeclarativeBase):
    pass


class ResearchSession(Base):
    __tablename__ = "research_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    query: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(32), default="running")
    stage: Mapped[str] = mapped_column(String(32), default="")
    mode: Mapped[str] = mapped_column(String(16), default="")
    config: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[str] = mapped_column(String(32))
    updated_at: Mapped[str] = mapped_column(String(32))
    final_synthesis: Mapped[str | None] = mapped_column(Text, nullable=True)
    result: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    active_s: Mapped[float] = mapped_column(Float, default=0.0)
    progress: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    # A person asked to stop it: kept apart from ``status`` so the request survives the
    # run's own status writes and a restart of the process that was running it.
    cancel_requested: Mapped[bool | None] = mapped_column(Boolean, nullable=True, default=False)
    # Runs of this session in a row whose process ended without recording an end (a
    # segfault, kill -9, the machine going down): the quarantine counts these.
    unclean_exits: Mapped[int | None] = mapped_column(Integer, nullable=True, default=0)
    # With workers (service.broker_url): the dispatch a worker may run it for, and when
    # that dispatch reached the broker (empty: not yet, so workers dispatch it again)
    dispatch_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    dispatched_at: Mapped[str | None] = mapped_column(String(32), nullable=True)


class ResearchFinding(Base):
    __tablename__ = "research_findings"

    id: Mapped[str] = mapped_column(String(96), primary_key=True)  # session:finding
    session_id: Mapped[str] = mapped_column(ForeignKey("research_sessions.id"), index=True)
    finding_id: Mapped[str] = mapped_column(String(64))
    sub_question_id: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text)
    confidence: Mapped[float] = mapped_column(Float)
    sources: Mapped[list] = mapped_column(JSON, default=list)


class ResearchEvent(Base):
    __tablename__ = "research_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("research_sessions.id"), index=True)
    kind: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[str] = mapped_column(String(32))


def _create_sessions_file(path: Path) -> None:
    """A new sessions database with all its tables (linked into place by the caller)."""
    engine = create_engine(f"sqlite:///{path}", future=True)
    try:
        Base.metadata.create_all(engine)
    finally:
        engine.dispose()


UNFINISHED = ("queued", "running")
TERMINAL = ("completed", "failed", "cancelled")
# PostgreSQL: every stored event is announced on this channel with its session id
EVENT_CHANNEL = "research_studio_events"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SessionStore:
    """One SQLite file per home, or any SQLAlchemy URL (PostgreSQL via psycopg)."""

    def __init__(self, url_or_path: str | Path) -> None:
        url = str(url_or_path)
        if "://" not in url:
            url = f"sqlite:///{url}"
        sqlite = url.startswith("sqlite")
        self.engine = create_engine(
            url, future=True, pool_pre_ping=not sqlite,
            connect_args={"check_same_thread": False, "timeout": 30} if sqlite else {})
        database = self.engine.url.database
        # the file, for a SQLite database on disk (not ":memory:" or a bare "sqlite://")
        self.path = Path(database) if sqlite and database and database != ":memory:" else None
        event.listen(self.engine, "handle_error", self._storage_fault)
        if self.path is not None and not check_sqlite_file(SESSIONS, self.path):
            create_atomically(SESSIONS, self.path, _create_sessions_file)
        if self.path is not None:
            check_marker_table(SESSIONS, self.path, inspect(self.engine).get_table_names())
        Base.metadata.create_all(self.engine)
        self._add_missing_columns()
        self.announces = self.engine.url.get_backend_name() == "postgresql"

    def where(self) -> str:
        """The database for messages: its file, or its server without credentials."""
        if self.path is not None:
            return str(self.path)
        url = self.engine.url
        if url.get_backend_name() == "postgresql":
            return f"PostgreSQL ({url.host}:{url.port or 5432}/{url.database})"
        return url.render_as_string(hide_password=True)

    def _storage_fault(self, context: ExceptionContext) -> None:
        """Every query's storage fault (a corrupt, truncated, locked or unwritable file, an
        unreachable server) becomes one StorageError naming the database; errors about the
        statement itself stay what they are."""
        if context.is_pre_ping or not is_storage_exception(context.original_exception):
            return
        if self.path is not None:
            raise fault(SESSIONS, self.path, context.original_exception)
        raise remote_fault(SESSIONS, self.where(), context.original_exception)

    def _add_missing_columns(self) -> None:
        """Homes made by an older version lack newer nullable columns; add them."""
        present = {c["name"] for c in inspect(self.engine).get_columns("research_sessions")}
        for column in ResearchSession.__table__.columns:
            if column.name not in present and column.nullable:
                kind = column.type.compile(dialect=self.engine.dialect)
                with self.engine.begin() as conn:
                    conn.execute(text(f"ALTER TABLE research_sessions "
                                      f"ADD COLUMN {column.name} {kind}"))

    def create(self, session_id: str, query: str, config: dict[str, Any],
               status: str = "running") -> None:
        with Session(self.engine) as db, db.begin():
            db.add(ResearchSession(id=session_id, query=query, config=config, status=status,
                                   created_at=_now(), updated_at=_now()))

    def update(self, session_id: str, **fields: Any) -> None:
        with Session(self.engine) as db, db.begin():
            row = db.get(ResearchSession, session_id)
            if row is None:
                raise ResearchStudioError(f"unknown session {session_id!r}")
            for key, value in fields.items():
                setattr(row, key, value)
            row.updated_at = _now()

    def save_findings(self, session_id: str, findings: list[dict],
                      sources: dict[str, dict]) -> None:
        """Upsert findings with their source records (as JSON, seed 000)."""
        if not findings:
            return
        with Session(self.engine) as db, db.begin():
            for f in findings:
                source = sources.get(f["source_id"], {})
                db.merge(ResearchFinding(
                    id=f"{session_id}:{f['finding_id']}", session_id=session_id,
                    finding_id=f["finding_id"], sub_question_id=f["sub_question_id"],
                    content=f["text"], confidence=float(f.get("confidence", 0.0)),
                    sources=[{"source_id": f["source_id"], "title": source.get("title", ""),
                              "location": source.get("location", ""),
                              "chunk_id": source.get("chunk_id", ""),
                              "sub_question_id": f["sub_question_id"]}]))

    def begin_run(self, session_id: str) -> int:
        """Count a run of the session as started; return how many runs before it ended
        without recording an end (their process died: a crash, kill -9)."""
        with Session(self.engine) as db, db.begin():
            row = db.get(ResearchSession, session_id)
            if row is None:
                raise ResearchStudioError(f"unknown session {session_id!r}")
            previous = int(row.unclean_exits or 0)
            row.unclean_exits = previous + 1
            return previous

    def end_run(self, session_id: str) -> None:
        """The process saw its run end (finished, failed, interrupted): not a crash."""
        self.update(session_id, unclean_exits=0)

    def request_cancel(self, session_id: str) -> None:
        """Record a person's cancel durably, before anything acts on it."""
        self.update(session_id, cancel_requested=True)

    def get(self, session_id: str) -> dict[str, Any]:
        with Session(self.engine) as db:
            row = db.get(ResearchSession, session_id)
            if row is None:
                known = [r for (r,) in db.execute(select(ResearchSession.id).limit(5))]
                raise ResearchStudioError(f"unknown session {session_id!r}"
                                          + (f"; recent: {', '.join(known)}" if known else ""))
            return {c.name: getattr(row, c.name) for c in ResearchSession.__table__.columns}

    def findings(self, session_id: str) -> list[dict[str, Any]]:
        with Session(self.engine) as db:
            rows = db.scalars(select(ResearchFinding).where(ResearchFinding.session_id == session_id))
            return [{"finding_id": r.finding_id, "sub_question_id": r.sub_question_id,
                     "content": r.content, "confidence": r.confidence, "sources": r.sources}
                    for r in rows]

    def exists(self, session_id: str) -> bool:
        with Session(self.engine) as db:
            return db.get(ResearchSession, session_id) is not None

    def list(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        with Session(self.engine) as db:
            rows = db.scalars(select(ResearchSession)
                              .order_by(ResearchSession.created_at.desc(), ResearchSession.id)
                              .offset(offset).limit(limit))
            return [{"id": r.id, "query": r.query, "status": r.status, "stage": r.stage,
                     "mode": r.mode, "created_at": r.created_at, "updated_at": r.updated_at}
                    for r in rows]

    def count(self) -> int:
        with Session(self.engine) as db:
            return int(db.scalar(select(func.count()).select_from(ResearchSession)) or 0)

    def unfinished_rows(self) -> list[dict[str, Any]]:
        """Queued and running sessions with what decides who runs them, oldest first."""
        with Session(self.engine) as db:
            rows = db.scalars(select(ResearchSession)
                              .where(ResearchSession.status.in_(UNFINISHED))
                              .order_by(ResearchSession.created_at))
            return [{"id": r.id, "status": r.status, "dispatch_id": r.dispatch_id,
                     "dispatched_at": r.dispatched_at, "updated_at": r.updated_at,
                     "cancel_requested": bool(r.cancel_requested)} for r in rows]

    def claim_dispatch(self, session_id: str, dispatch_id: str, status: str | None = None,
                       previous: str | None = None) -> bool:
        """Queue the session under a new dispatch id, not yet sent to the broker. With
        ``status``, only if its status and dispatch id are still ``status`` and
        ``previous`` (compare-and-set: of two processes claiming it, one wins)."""
        with Session(self.engine) as db, db.begin():
            statement = (update(ResearchSession).where(ResearchSession.id == session_id)
                         .values(status="queued", dispatch_id=dispatch_id, dispatched_at=None,
                                 updated_at=_now()))
            if status is not None:
                statement = statement.where(ResearchSession.status == status,
                                            ResearchSession.dispatch_id.is_not_distinct_from(previous))
            return db.execute(statement).rowcount == 1

    def mark_dispatched(self, session_id: str, dispatch_id: str) -> None:
        """The broker took this dispatch of the session."""
        with Session(self.engine) as db, db.begin():
            db.execute(update(ResearchSession)
                       .where(ResearchSession.id == session_id,
                              ResearchSession.dispatch_id == dispatch_id)
                       .values(dispatched_at=_now()))

    def unfinished(self) -> list[str]:
        """Sessions a crashed or stopped server left queued or running, oldest first."""
        return [row["id"] for row in self.unfinished_rows()]

    def add_event(self, session_id: str, kind: str, data: dict[str, Any]) -> int:
        with Session(self.engine) as db, db.begin():
            event = ResearchEvent(session_id=session_id, kind=kind, data=data, created_at=_now())
            db.add(event)
            db.flush()
            if self.announces:  # delivered to listeners when this transaction commits
                db.execute(text("SELECT pg_notify(:channel, :session)"),
                           {"channel": EVENT_CHANNEL, "session": session_id})
            return int(event.id)

    def events_after(self, session_id: str, after_id: int = 0,
                     limit: int = 500) -> list[dict[str, Any]]:
        with Session(self.engine) as db:
            rows = db.scalars(select(ResearchEvent)
                              .where(ResearchEvent.session_id == session_id,
                                     ResearchEvent.id > after_id)
                              .order_by(ResearchEvent.id).limit(limit))
            return [{"id": r.id, "kind": r.kind, "data": r.data, "created_at": r.created_at}
                    for r in rows]

    def dumps(self, session_id: str) -> str:
        return json.dumps(self.get(session_id), indent=2, ensure_ascii=False)

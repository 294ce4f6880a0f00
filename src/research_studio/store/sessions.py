"""Sessions database (seed 000's research_sessions / research_findings), via SQLAlchemy.

Findings are written as they arrive, so a crash loses nothing already gathered; the
final result JSON and report are stored when a session completes.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, String, Text, create_engine, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from research_studio.errors import ResearchStudioError


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


class ResearchFinding(Base):
    __tablename__ = "research_findings"

    id: Mapped[str] = mapped_column(String(96), primary_key=True)  # session:finding
    session_id: Mapped[str] = mapped_column(ForeignKey("research_sessions.id"), index=True)
    finding_id: Mapped[str] = mapped_column(String(64))
    sub_question_id: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text)
    confidence: Mapped[float] = mapped_column(Float)
    sources: Mapped[list] = mapped_column(JSON, default=list)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SessionStore:
    """One SQLite file per home (a database URL may point elsewhere)."""

    def __init__(self, url_or_path: str | Path) -> None:
        url = str(url_or_path)
        if "://" not in url:
            url = f"sqlite:///{url}"
        self.engine = create_engine(url, future=True)
        Base.metadata.create_all(self.engine)

    def create(self, session_id: str, query: str, config: dict[str, Any]) -> None:
        with Session(self.engine) as db, db.begin():
            db.add(ResearchSession(id=session_id, query=query, config=config, status="running",
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

    def list(self, limit: int = 50) -> list[dict[str, Any]]:
        with Session(self.engine) as db:
            rows = db.scalars(select(ResearchSession).order_by(ResearchSession.created_at.desc())
                              .limit(limit))
            return [{"id": r.id, "query": r.query, "status": r.status, "stage": r.stage,
                     "mode": r.mode, "created_at": r.created_at, "updated_at": r.updated_at}
                    for r in rows]

    def dumps(self, session_id: str) -> str:
        return json.dumps(self.get(session_id), indent=2, ensure_ascii=False)

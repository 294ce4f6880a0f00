"""What the MCP tools answer. Pydantic models, so the SDK publishes an output schema for
each tool and sends the answer both as structured content and as JSON text."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


def report_uri(session_id: str) -> str:
    return f"research://sessions/{session_id}/report"


def result_uri(session_id: str) -> str:
    return f"research://sessions/{session_id}/result"


class SessionStarted(BaseModel):
    session_id: str
    status: str = Field(description="queued: it runs in the background of this server.")
    report_uri: str = Field(description="Resource with the report (Markdown) once completed.")
    result_uri: str = Field(description="Resource with the result JSON once completed.")


class SessionState(BaseModel):
    """A session as a client polls it: status, stage, and an estimate of how far it got."""

    session_id: str
    query: str
    status: str = Field(description="queued, running, completed, failed, cancelled, "
                                    "interrupted, awaiting_clarification or "
                                    "awaiting_plan_review.")
    stage: str
    mode: str
    created_at: str
    updated_at: str
    error: str | None = None
    percent: float = Field(description="Rough share of the work done, 0-100.")
    summary: str = Field(description="One line: stage, sub-questions done, findings, sources.")
    progress: dict[str, Any] = Field(description="Sub-question tree with status and counts.")
    report_uri: str
    result_uri: str


class ResearchOutcome(SessionState):
    """A session when a wait ended: the report when it completed, else where it stands."""

    finished: bool = Field(description="False when the wait timed out; wait again with "
                                        "wait_for_session.")
    short_answer: str | None = Field(default=None, description=(
        "The asked-for entity in bold at the top of the report, when the question asks for one."))
    report_markdown: str | None = None
    overall_confidence: float | None = None
    sources_cited: int | None = None


class SessionRow(BaseModel):
    session_id: str
    query: str
    status: str
    stage: str
    mode: str
    created_at: str
    updated_at: str


class SessionPage(BaseModel):
    sessions: list[SessionRow]
    total: int
    limit: int
    offset: int


class KnowledgeBase(BaseModel):
    name: str
    chunks: int
    created_at: str
    embedding_model: str


class KnowledgeBases(BaseModel):
    knowledge_bases: list[KnowledgeBase]


class Passage(BaseModel):
    """A stored chunk: the exact span ``text == document[start:end]`` of a source."""

    doc_id: str
    chunk_id: str
    title: str
    location: str
    score: float
    text: str
    start: int
    end: int


class SearchResult(BaseModel):
    knowledge_base: str
    query: str
    mode: str
    hits: list[Passage]


class Cancelled(BaseModel):
    session_id: str
    status: str

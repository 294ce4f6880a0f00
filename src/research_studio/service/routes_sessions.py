"""``/api/research/sessions``: start, list, inspect, stream, answer and cancel research."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request
from fastapi.responses import JSONResponse
from fastapi.sse import EventSourceResponse, ServerSentEvent

from research_studio.errors import InvalidQuery, ResearchStudioError
from research_studio.graph.progress import new_progress
from research_studio.graph.session import prepare_session
from research_studio.service.runner import SessionRunner
from research_studio.service.schemas import (
    Accepted,
    ClarificationAnswer,
    SessionCreate,
    SessionCreated,
    SessionDetail,
    SessionPage,
)
from research_studio.store.sessions import TERMINAL

# SQLite and PostgreSQL integers are signed 64-bit: a larger cursor or offset cannot even be
# bound as a parameter, so it is refused as bad input rather than failing in the driver.
MAX_SQL_INTEGER = 2**63 - 1

router = APIRouter(prefix="/api/research/sessions", tags=["research"])


def runner_of(request: Request) -> SessionRunner:
    return request.app.state.runner


Runner = Annotated[SessionRunner, Depends(runner_of)]


def existing_session(session_id: str, runner: Runner) -> dict[str, Any]:
    try:
        return runner.store.get(session_id)
    except ResearchStudioError:
        raise HTTPException(404, f"no session {session_id!r}") from None


SessionRow = Annotated[dict[str, Any], Depends(existing_session)]


def _links(session_id: str) -> dict[str, str]:
    base = f"/api/research/sessions/{session_id}"
    return {"self": base, "events": f"{base}/events", "results": f"{base}/results"}


@router.post("", status_code=202, response_model=SessionCreated)
async def create_session(body: SessionCreate, runner: Runner) -> SessionCreated:
    """Record the session and start it in the background (it queues when all slots are busy)."""
    config = body.config.to_config()
    try:
        session_id = prepare_session(runner.workspace, body.query, config, status="queued")
    except InvalidQuery as exc:
        raise HTTPException(422, str(exc)) from None
    runner.submit(session_id)
    return SessionCreated(session_id=session_id, status="queued", links=_links(session_id))


@router.get("", response_model=SessionPage)
async def list_sessions(runner: Runner, limit: Annotated[int, Query(ge=1, le=200)] = 20,
                        offset: Annotated[int, Query(ge=0, le=MAX_SQL_INTEGER)] = 0) -> dict[str, Any]:
    """Sessions, newest first."""
    return {"items": runner.store.list(limit=limit, offset=offset), "total": runner.store.count(),
            "limit": limit, "offset": offset}


@router.get("/{session_id}", response_model=SessionDetail)
async def get_session(row: SessionRow) -> dict[str, Any]:
    """Status, current stage and progress (sub-question tree, counts)."""
    pending = None
    if row["status"] == "awaiting_clarification" and row.get("result"):
        pending = row["result"].get("pending_clarification")
    return {**{k: row[k] for k in ("id", "query", "status", "stage", "mode", "created_at",
                                   "updated_at", "error", "config")},
            "progress": row.get("progress") or new_progress(), "pending_clarification": pending}


@router.get("/{session_id}/results", responses={409: {"description": "Not complete yet."}})
async def get_results(row: SessionRow) -> Any:
    """The result JSON (DESIGN.md) once the session is complete."""
    if row["status"] != "completed" or not row.get("result"):
        return JSONResponse({"detail": f"session is {row['status']}", "status": row["status"],
                             "stage": row["stage"]}, status_code=409)
    return row["result"]


def event_cursor(last_event_id: Annotated[str | None, Header()] = None,
                 after: Annotated[int | None, Query(ge=0, le=MAX_SQL_INTEGER)] = None) -> int:
    """Where a stream starts: after ``?after=`` or the ``Last-Event-ID`` a client resends."""
    if after is not None:
        return after
    try:
        cursor = max(0, int(last_event_id)) if last_event_id else 0
        if cursor > MAX_SQL_INTEGER:
            raise ValueError(last_event_id)
        return cursor
    except ValueError:
        raise HTTPException(400, "Last-Event-ID must be an event id from this stream") from None


@router.get("/{session_id}/events", response_class=EventSourceResponse)
async def stream_events(row: SessionRow, request: Request, runner: Runner,
                        cursor: Annotated[int, Depends(event_cursor)]) -> AsyncIterator[ServerSentEvent]:
    """Server-sent events, oldest first; reconnect with ``Last-Event-ID`` (or ``?after=``)
    to get only what was missed. The stream ends once the session is finished."""
    session_id = row["id"]
    keepalive = request.app.state.settings.service.sse_keepalive_s
    while True:
        seen = runner.board.version[session_id]
        events = runner.store.events_after(session_id, cursor)
        for event in events:
            cursor = event["id"]
            yield ServerSentEvent(id=str(event["id"]), event=event["kind"], data=event["data"])
        if events:
            continue
        if runner.store.get(session_id)["status"] in TERMINAL or await request.is_disconnected():
            if not runner.store.events_after(session_id, cursor, limit=1):
                return
            continue
        await runner.board.wait(session_id, seen, timeout=keepalive)


@router.post("/{session_id}/clarification", status_code=202, response_model=Accepted,
             responses={409: {"description": "No question is pending."}})
async def answer_clarification(body: ClarificationAnswer, row: SessionRow, runner: Runner,
                               request: Request) -> Accepted:
    """Answer the pending clarifying questions (or ``/end``); the graph resumes."""
    if row["status"] != "awaiting_clarification" or runner.is_active(row["id"]):
        raise HTTPException(409, f"session is {row['status']}; no clarification is pending")
    limit = request.app.state.settings.service.max_answer_chars
    if len(body.answer) > limit:
        raise HTTPException(422, f"the answer is {len(body.answer):,} characters; the limit is {limit:,}")
    runner.submit(row["id"], answer=body.answer.strip())
    return Accepted(session_id=row["id"], status="queued")


@router.post("/{session_id}/cancel", status_code=202, response_model=Accepted,
             responses={409: {"description": "The session already finished."}})
async def cancel_session(row: SessionRow, runner: Runner) -> Accepted:
    """Stop a queued, running or waiting session."""
    if row["status"] in TERMINAL or not runner.cancel(row["id"]):
        raise HTTPException(409, f"session is {row['status']}; nothing to cancel")
    return Accepted(session_id=row["id"], status="cancelling")

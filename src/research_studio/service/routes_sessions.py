"""``/api/research/sessions``: start, list, inspect, stream, answer and cancel research."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request
from fastapi.responses import JSONResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from research_studio.config import MAX_INT64
from research_studio.errors import InvalidQuery, ResearchStudioError, StorageError
from research_studio.export.formats import MEDIA_TYPES, ExportFormat, export_report
from research_studio.graph.plan_edits import InvalidPlanDecision, PlanDecision, check_decision
from research_studio.graph.progress import new_progress
from research_studio.graph.session import prepare_session
from research_studio.service.responses import invalid, refusals, stream_refusals
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

router = APIRouter(prefix="/api/research/sessions", tags=["research"])
# A finished session's stream waits this long for the terminal status event that ends it
# (written just after the status row, by a worker that may run in another process),
# polling this often; a session finished without one (an older store) ends after the wait.
FINAL_EVENTS_WAIT_S = 10.0
FINAL_EVENTS_POLL_S = 0.2


def runner_of(request: Request) -> SessionRunner:
    return request.app.state.runner


Runner = Annotated[SessionRunner, Depends(runner_of)]


def existing_session(session_id: str, runner: Runner) -> dict[str, Any]:
    try:
        return runner.store.get(session_id)
    except StorageError:
        raise  # the server's storage, not an unknown session: 503
    except ResearchStudioError:
        raise HTTPException(404, f"no session {session_id!r}") from None


SessionRow = Annotated[dict[str, Any], Depends(existing_session)]


def _links(session_id: str) -> dict[str, str]:
    base = f"/api/research/sessions/{session_id}"
    return {"self": base, "events": f"{base}/events", "results": f"{base}/results"}


@router.post("", status_code=202, response_model=SessionCreated,
             responses=refusals(400, 413, 422))
async def create_session(body: SessionCreate, runner: Runner) -> SessionCreated:
    """Record the session and start it in the background (it queues when all slots are busy).
    A question that cannot be researched, or a session with neither a knowledge base nor
    the web, is refused here (422), not failed later."""
    config = body.config.to_config()
    try:
        session_id = prepare_session(runner.workspace, body.query, config, status="queued")
    except InvalidQuery as exc:
        raise invalid(("body", exc.field), str(exc), "invalid_" + exc.field) from None
    runner.submit(session_id)
    return SessionCreated(session_id=session_id, status="queued", links=_links(session_id))


@router.get("", response_model=SessionPage, responses=refusals(422))
async def list_sessions(runner: Runner, limit: Annotated[int, Query(ge=1, le=200)] = 20,
                        offset: Annotated[int, Query(ge=0, le=MAX_INT64)] = 0) -> dict[str, Any]:
    """Sessions, newest first. Offsets past 64 bits are refused (SQL cannot bind them)."""
    return {"items": runner.store.list(limit=limit, offset=offset), "total": runner.store.count(),
            "limit": limit, "offset": offset}


@router.get("/{session_id}", response_model=SessionDetail, responses=refusals(404, 422))
async def get_session(row: SessionRow) -> dict[str, Any]:
    """Status, current stage and progress (sub-question tree, counts)."""
    result = row.get("result") or {}
    waits = {"awaiting_clarification": "pending_clarification",
             "awaiting_plan_review": "pending_plan"}
    pending = {field: result.get(field) for status, field in waits.items()
               if row["status"] == status}
    return {**{k: row[k] for k in ("id", "query", "status", "stage", "mode", "created_at",
                                   "updated_at", "error", "config")},
            "progress": row.get("progress") or new_progress(), **pending}


def not_complete(row: dict[str, Any]) -> JSONResponse | None:
    """The 409 for a session whose result is not there yet (it carries the status), or
    None once it is complete."""
    if row["status"] == "completed" and row.get("result"):
        return None
    return JSONResponse({"detail": f"session is {row['status']}", "status": row["status"],
                         "stage": row["stage"]}, status_code=409)


@router.get("/{session_id}/results", responses=refusals(404, 409, 422, not_complete=True))
async def get_results(row: SessionRow) -> Any:
    """The result JSON (DESIGN.md) once the session is complete."""
    if (refusal := not_complete(row)) is not None:
        return refusal
    return row["result"]


EXPORT_CONTENT = {media.split(";")[0]: {"schema": {"type": "string", "format": "binary"}}
                  for media in MEDIA_TYPES.values()}


@router.get("/{session_id}/export", response_class=Response,
            responses={200: {"content": EXPORT_CONTENT, "description": "The report file."},
                       **refusals(404, 409, 422, 501, not_complete=True)})
async def export(row: SessionRow,
                 fmt: Annotated[ExportFormat, Query(alias="format")] = "md") -> Response:
    """The finished report as a file: Markdown, HTML, PDF or DOCX, citations kept as links."""
    if (refusal := not_complete(row)) is not None:
        return refusal
    try:
        content = await asyncio.to_thread(export_report, row["result"], fmt)
    except ResearchStudioError as exc:  # an export this server cannot make (PDF without WeasyPrint)
        raise HTTPException(501, str(exc)) from None
    name = f"report-{row['id']}.{fmt}"
    return Response(content, media_type=MEDIA_TYPES[fmt],
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


def event_cursor(last_event_id: Annotated[str | None, Header()] = None,
                 after: Annotated[int | None, Query(ge=0, le=MAX_INT64)] = None) -> int:
    """Where a stream starts: after ``?after=`` or the ``Last-Event-ID`` a client resends.
    Both are checked before the stream starts: a cursor SQL cannot bind would otherwise
    break the stream after its 200. The header is free text by the SSE standard, so a bad
    one is a 400 with a message rather than a schema error."""
    if after is not None:
        return after
    if not last_event_id:
        return 0
    try:
        cursor: int | None = max(0, int(last_event_id))
    except ValueError:
        cursor = None
    if cursor is None or cursor > MAX_INT64:
        raise HTTPException(400, "Last-Event-ID must be an event id from this stream")
    return cursor


@router.get("/{session_id}/events", response_class=EventSourceResponse,
            responses=stream_refusals(400, 404, 422))
async def stream_events(row: SessionRow, request: Request, runner: Runner,
                        cursor: Annotated[int, Depends(event_cursor)]) -> AsyncIterator[ServerSentEvent]:
    """Server-sent events, oldest first; reconnect with ``Last-Event-ID`` (or ``?after=``)
    to get only what was missed. The stream ends once the session is finished."""
    session_id = row["id"]
    keepalive = request.app.state.settings.service.sse_keepalive_s
    ended = False  # the session's terminal status event was sent: nothing follows it
    finished_at: float | None = None
    while True:
        seen = runner.board.version[session_id]
        events = runner.store.events_after(session_id, cursor)
        for event in events:
            cursor = event["id"]
            ended = event["kind"] == "status" and event["data"].get("status") in TERMINAL
            yield ServerSentEvent(id=str(event["id"]), event=event["kind"], data=event["data"])
        if events:
            continue
        if ended or await request.is_disconnected():
            return
        if runner.store.get(session_id)["status"] in TERMINAL:
            # the status row is written before the session's last events (its summary and
            # its terminal status), by a worker that may be another process: wait for them
            finished_at = finished_at or time.monotonic()
            if time.monotonic() - finished_at > FINAL_EVENTS_WAIT_S:
                return
            await runner.board.wait(session_id, seen, timeout=FINAL_EVENTS_POLL_S)
            continue
        await runner.board.wait(session_id, seen, timeout=keepalive)


@router.post("/{session_id}/clarification", status_code=202, response_model=Accepted,
             responses=refusals(400, 404, 409, 413, 422))
async def answer_clarification(body: ClarificationAnswer, row: SessionRow, runner: Runner,
                               request: Request) -> Accepted:
    """Answer the pending clarifying questions (or ``/end``); the graph resumes."""
    if row["status"] != "awaiting_clarification" or runner.is_active(row["id"]):
        raise HTTPException(409, f"session is {row['status']}; no clarification is pending")
    limit = request.app.state.settings.service.max_answer_chars
    if len(body.answer) > limit:
        raise invalid(("body", "answer"), f"the answer is {len(body.answer):,} characters; the "
                      f"limit is {limit:,}", "string_too_long")
    runner.submit(row["id"], answer=body.answer.strip())
    return Accepted(session_id=row["id"], status="queued")


@router.post("/{session_id}/plan", status_code=202, response_model=Accepted,
             responses=refusals(400, 404, 409, 413, 422))
async def review_plan(body: PlanDecision, row: SessionRow, runner: Runner) -> Accepted:
    """Decide the plan a session waits on (``review_plan``): ``approve`` it, ``edit`` it
    (the full list of sub-questions in order: ids left out are removed, a null id is a new
    one, priorities 0–1 share the budgets anew) or ``replan`` with a note. An edit that does
    not fit the plan (no sub-question left, more than the maximum, an empty text, an
    unknown or repeated id) is refused with 422 and the plan stays pending."""
    pending = (row.get("result") or {}).get("pending_plan")
    if row["status"] != "awaiting_plan_review" or not pending or runner.is_active(row["id"]):
        raise HTTPException(409, f"session is {row['status']}; no plan waits for review")
    try:
        decision = check_decision(body, pending)
    except InvalidPlanDecision as exc:
        raise invalid(("body", *exc.loc), str(exc), "invalid_plan") from None
    runner.submit(row["id"], answer=decision.model_dump())
    return Accepted(session_id=row["id"], status="queued")


@router.post("/{session_id}/cancel", status_code=202, response_model=Accepted,
             responses=refusals(404, 409, 422))
async def cancel_session(row: SessionRow, runner: Runner) -> Accepted:
    """Stop a queued, running or waiting session."""
    if row["status"] in TERMINAL or not runner.cancel(row["id"]):
        raise HTTPException(409, f"session is {row['status']}; nothing to cancel")
    return Accepted(session_id=row["id"], status="cancelling")

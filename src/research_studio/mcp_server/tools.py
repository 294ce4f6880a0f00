"""The MCP tools: start or run a research, follow a session, read its result, search and
list knowledge bases. Arguments are typed, so the SDK publishes their JSON schema and
refuses wrong types itself; what only the project can check (an empty question, an
unknown knowledge base or session) comes back as a tool error with the project's message.

A client can start and poll (``start_research``, ``session_status``, ``session_result``)
or call and wait (``research``, or ``wait_for_session`` for a session already started),
with progress notifications while it waits when it sent a progress token. A wait that is
cancelled or times out leaves the research running in the server.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from research_studio.config import MAX_INT64, TEMPLATES, KbName
from research_studio.errors import ResearchStudioError
from research_studio.knowledge.base import SearchMode
from research_studio.mcp_server.schemas import (
    Cancelled,
    KnowledgeBases,
    ResearchOutcome,
    SearchResult,
    SessionPage,
    SessionStarted,
    SessionState,
    report_uri,
    result_uri,
)
from research_studio.mcp_server.service import Report, ResearchService

Question = Annotated[str, Field(description="The question to research, in a sentence or a few.")]
KbOption = Annotated[KbName | None, Field(
    description="Knowledge base to research (list_knowledge_bases names them).")]
Mode = Annotated[Literal["auto", "flat", "hierarchical"], Field(
    description="auto researches a single fact flat and anything else hierarchically.")]
Web = Annotated[bool, Field(description="Also search the web (needs network access).")]
Template = Annotated[str | None, Field(description=f"One of: {', '.join(TEMPLATES)}.")]
Wait = Annotated[float, Field(gt=0, le=86_400, description=(
    "Seconds to wait; when they pass the research goes on and the answer says finished: "
    "false."))]
SessionId = Annotated[str, Field(min_length=1, max_length=64, description="A session id.")]
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
RUNS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """The project's one-line messages as tool errors (``isError``) the client can read;
    anything else is the SDK's: logged with its traceback, a generic error to the client."""
    try:
        yield
    except ResearchStudioError as exc:
        raise ToolError(str(exc)) from None


def service_of(ctx: Context) -> ResearchService:
    return ctx.request_context.lifespan_context


def options(kb: str | None, mode: str, web: bool, template: str | None) -> dict[str, Any]:
    """The research options as the API takes them. As on the command line, a mode left at
    auto and the web left off are not explicit, so a template's mode and web apply."""
    chosen: dict[str, Any] = {"kb": kb}
    if mode != "auto":
        chosen["mode"] = mode
    if web:
        chosen["use_web"] = True
    if template:
        chosen["template"] = template
    return chosen


def progress_reporter(ctx: Context, session_id: str) -> Report:
    """Progress notifications for this call (none unless the client sent a progress token);
    the first names the session, so a client can follow it elsewhere."""
    first = True

    async def report(value: float, line: str) -> None:
        nonlocal first
        message = f"session {session_id}: {line}" if first else line
        first = False
        await ctx.report_progress(value, 100.0, message)

    return report


def finished_or_error(outcome: ResearchOutcome) -> ResearchOutcome:
    """A research that ended without a report is an error the client sees as one."""
    if outcome.status in ("failed", "cancelled"):
        reason = f": {outcome.error}" if outcome.error else ""
        raise ToolError(f"session {outcome.session_id} {outcome.status}{reason}")
    return outcome


def register(server: MCPServer[ResearchService]) -> None:
    """Add the tools to ``server``."""

    @server.tool(annotations=RUNS)
    async def research(ctx: Context, question: Question, kb: KbOption = None, mode: Mode = "auto",
                       web: Web = False, template: Template = None,
                       timeout_s: Wait = 1800) -> ResearchOutcome:
        """Research a question and wait for the cited report: plan sub-questions, research
        them over the knowledge base (and the web), verify every claim against its source
        span, write a report with [S1] citations. Sends progress notifications while it runs.
        Takes seconds to minutes; start_research returns at once instead."""
        with user_errors():
            service = service_of(ctx)
            session_id = await service.start(question, options(kb, mode, web, template))
            outcome = await service.follow(session_id, timeout_s, progress_reporter(ctx, session_id))
        return finished_or_error(outcome)

    @server.tool(annotations=RUNS)
    async def start_research(ctx: Context, question: Question, kb: KbOption = None,
                             mode: Mode = "auto", web: Web = False,
                             template: Template = None) -> SessionStarted:
        """Start a research in the background and return its session id at once; follow it
        with session_status or wait_for_session, read it with session_result."""
        with user_errors():
            session_id = await service_of(ctx).start(question, options(kb, mode, web, template))
        return SessionStarted(session_id=session_id, status="queued",
                              report_uri=report_uri(session_id), result_uri=result_uri(session_id))

    @server.tool(annotations=READ_ONLY)
    async def wait_for_session(ctx: Context, session_id: SessionId,
                               timeout_s: Wait = 1800) -> ResearchOutcome:
        """Wait for a session (started here, by the CLI or by the HTTP service) to finish,
        with progress notifications; returns the report once it completed."""
        with user_errors():
            outcome = await service_of(ctx).follow(session_id, timeout_s,
                                                   progress_reporter(ctx, session_id))
        return finished_or_error(outcome)

    @server.tool(annotations=READ_ONLY)
    async def session_status(ctx: Context, session_id: SessionId) -> SessionState:
        """A session's status, stage and progress (sub-questions with their status, counts)."""
        with user_errors():
            return service_of(ctx).state(session_id)

    @server.tool(annotations=READ_ONLY)
    async def session_result(ctx: Context, session_id: SessionId) -> dict[str, Any]:
        """The result JSON of a completed session: report_markdown, short_answer,
        sub_questions, claims with their status, sources with their exact spans, metrics."""
        with user_errors():
            return service_of(ctx).result(session_id)

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                             idempotent_hint=True, open_world_hint=False))
    async def cancel_session(ctx: Context, session_id: SessionId) -> Cancelled:
        """Stop a queued or running session that this server runs."""
        with user_errors():
            return Cancelled(session_id=session_id, status=service_of(ctx).cancel(session_id))

    @server.tool(annotations=RUNS)
    async def resume_session(ctx: Context, session_id: SessionId) -> SessionStarted:
        """Run an interrupted session (its server stopped while it ran) on from its last
        checkpoint, in the background; follow it like a started one."""
        with user_errors():
            status = service_of(ctx).resume(session_id)
        return SessionStarted(session_id=session_id, status=status,
                              report_uri=report_uri(session_id), result_uri=result_uri(session_id))

    @server.tool(annotations=READ_ONLY)
    async def list_sessions(ctx: Context,
                            limit: Annotated[int, Field(ge=1, le=200)] = 20,
                            offset: Annotated[int, Field(ge=0, le=MAX_INT64)] = 0) -> SessionPage:
        """Research sessions of this home, newest first (whoever started them)."""
        with user_errors():
            return service_of(ctx).sessions(limit, offset)

    @server.tool(annotations=READ_ONLY)
    async def list_knowledge_bases(ctx: Context) -> KnowledgeBases:
        """The knowledge bases of this home: name, number of chunks, creation time."""
        with user_errors():
            return await service_of(ctx).knowledge_bases()

    @server.tool(annotations=READ_ONLY)
    async def search_knowledge_base(
            ctx: Context,
            query: Annotated[str, Field(min_length=1, max_length=2000, description="What to look for.")],
            kb: Annotated[KbName, Field(description="Knowledge base name.")],
            k: Annotated[int, Field(ge=1, le=50, description="Number of passages.")] = 10,
            mode: Annotated[SearchMode, Field(description="dense, bm25 or hybrid.")] = "hybrid",
    ) -> SearchResult:
        """Search a knowledge base: passages with their source, location, score and exact
        character span."""
        with user_errors():
            return await service_of(ctx).search(query, kb, k, mode)

"""MCP resources: a session's report (Markdown) and result JSON by URI, so a client can
attach them to a conversation without a tool call. An unknown session is "not found"
(-32602); one without a result yet is an error that says its status."""

from __future__ import annotations

import json

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from research_studio.errors import ResearchStudioError
from research_studio.mcp_server.service import ResearchService


def _result(ctx: Context, session_id: str) -> dict:
    service: ResearchService = ctx.request_context.lifespan_context
    try:
        if service.store.exists(session_id):
            return service.result(session_id)
    except ResearchStudioError as exc:  # not completed yet, or a storage fault
        raise ResourceError(str(exc)) from None
    raise ResourceNotFoundError(f"no session {session_id!r}")


def register(server: MCPServer[ResearchService]) -> None:
    """Add the resource templates to ``server``."""

    @server.resource("research://sessions/{session_id}/report", name="session_report",
                     mime_type="text/markdown",
                     description="The cited report of a completed research session.")
    async def report(session_id: str, ctx: Context) -> str:
        return _result(ctx, session_id)["report_markdown"]

    @server.resource("research://sessions/{session_id}/result", name="session_result",
                     mime_type="application/json",
                     description="The result JSON of a completed research session (as "
                                 "`research --json` writes it).")
    async def result(session_id: str, ctx: Context) -> str:
        return json.dumps(_result(ctx, session_id), ensure_ascii=False, indent=2)

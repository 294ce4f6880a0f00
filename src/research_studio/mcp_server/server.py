"""The MCP server of one home: its tools and resources around one ResearchService, which
lives as long as the server (one per process, shared by every client of an HTTP server)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Literal

from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse

from research_studio import __version__
from research_studio.config import AppContext
from research_studio.mcp_server import resources, tools
from research_studio.mcp_server.service import ResearchService
from research_studio.prompts import load_prompt

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


def build_server(ctx: AppContext, log_level: LogLevel = "WARNING") -> MCPServer[ResearchService]:
    """The server for ``ctx``'s home; nothing is opened until a transport runs it."""

    @asynccontextmanager
    async def lifespan(_: MCPServer[ResearchService]) -> AsyncIterator[ResearchService]:
        async with ResearchService.running(ctx) as service:
            yield service

    server: MCPServer[ResearchService] = MCPServer(
        "research-studio", title="Research Studio", version=__version__,
        instructions=load_prompt("mcp_instructions"), lifespan=lifespan, log_level=log_level)
    tools.register(server)
    resources.register(server)

    @server.custom_route("/healthz", methods=["GET"], include_in_schema=False)
    async def health(request: Request) -> JSONResponse:
        """Over HTTP: up or not, without the key (as ``serve``'s /healthz)."""
        return JSONResponse({"ok": True})

    return server
